; calls to a function nobody defined, on the right-hand side and in a test.
(defrule good (a ?x) => (printout t "good " ?x crlf))
(defrule rhs-unknown (a ?x) => (frobnicate ?x))
(defrule lhs-unknown (a ?x) (test (frobnicate ?x)) => (printout t "never" crlf))
(reset)
(assert (a 1))
(run)
(exit)
