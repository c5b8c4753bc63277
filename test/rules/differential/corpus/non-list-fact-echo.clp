; an atom where a fact belongs, in deffacts or a rule's assert: [PRNTUTIL2] RHS patterns, echoed through the atom (in deffacts on its own line), as CLIPS 6.30
(deffacts info (fact 1) fact)
(deffacts c (x) 3)
(deffacts d "comment" x)
(defrule r3 => (assert (x) 3))
(defrule r5 => (assert (x) y (z)))
(exit)
