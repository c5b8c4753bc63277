; = as the first field of a pattern, an assert or a deffacts fact: [PRNTUTIL2] as CLIPS 6.30, echoed through the =
(defrule a (= 5 7) =>)
(assert (= 5 7))
(defrule b => (assert (= 5 7)))
(deffacts c (= 1))
(exit)
