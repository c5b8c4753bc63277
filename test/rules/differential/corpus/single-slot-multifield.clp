; A single-field slot given several values, or none, in a top-level assert: CLIPS's
; [TMPLTDEF2] and no fact.
(deftemplate a (slot one (default nothing)) (multislot many))
(assert (a (one a a a a)))
(assert (a (one)))
(assert (a (one x) (many 1 2 3)))
(facts)
(exit)
