; the right-hand side uses a variable no pattern binds.
(defrule good (a ?x) => (printout t "good " ?x crlf))
(defrule unbound (a ?x) => (printout t "value " ?y crlf))
(reset)
(assert (a 1))
(run)
(exit)
