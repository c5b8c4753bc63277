; a rule missing its closing parenthesis: CLIPS reports the error and reads on.
(defrule good (a ?x) => (printout t "good " ?x crlf))
(defrule broken (a ?x) => (printout t "broken " ?x crlf)
(reset)
(assert (a 1))
(run)
(exit)
