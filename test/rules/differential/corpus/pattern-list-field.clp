; a list where a pattern field's constant or variable belongs: [PRNTUTIL2] for defrule, echoed up to the list's ( as CLIPS 6.30
(defrule foo3 (bar () =>))
(deftemplate yak (slot bar))
(defrule foo5 (yak (bar ()) =>))
(defrule foo7 (bar (x)) =>)
(defrule foo8 (bar a ?x&:(> ?x 1) (y)) =>)
(rules)
(exit)
