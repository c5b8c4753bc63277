; Joins on one variable share an alpha memory whether the variable sits at a fixed place or after a
; multifield: (not (a ?z)) must see the fact r0 already hashed into that memory.
(defrule r0 (a ?x) (a ?x) (a ?) => )
(defrule r5 (a $? ?z) (a ?y) (not (a ?z)) => )
(assert (a 1))
(agenda)
(clear)
(defrule r0 (a ?x) (a ?x) (a ?) => )
(defrule r5 (a $? ?z) (a ?y) (exists (a ?z)) => )
(assert (a 1))
(assert (a 2 3))
(agenda)
(exit)
