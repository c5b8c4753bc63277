; a stray closing parenthesis after a complete rule.
(defrule good (a ?x) => (printout t "good " ?x crlf)))
(reset)
(assert (a 1))
(run)
(exit)
