; `??` is two single-field wildcards and `$??` a multifield and a single-field wildcard, as
; CLIPS's scanner splits them; a variable bound earlier and leading an or-constraint
; (?x&green|blue) constrains every alternative; ?x|green stays an or.
(deffacts data (data a) (data a b) (data a b c) (data red green) (data red blue)
  (data purple green) (data purple blue))
(defrule two-fields (data ??) => (printout t "two-fields" crlf))
(defrule one-or-more (data $??) => (printout t "one-or-more" crlf))
(defrule leading-bound (data red ?x) (data purple ?x&green|blue)
  => (printout t "leading-bound " ?x crlf))
(defrule leading-free (data purple ?x&green|blue) => (printout t "leading-free " ?x crlf))
(defrule bound-or (declare (salience -1)) (data red ?x) (data purple ?x|green) => (printout t "bound-or " ?x crlf))
(reset)
(run)
(exit)
