; A single-field slot given =(call) holds one value; a second value after the call is [TMPLTDEF2].
(deftemplate point (slot x) (multislot tags))
(assert (point (x =(+ 1 2)) (tags a b)))
(assert (point (x =(str-cat "a" "b"))))
(facts)
(assert (point (x =(+ 1 2) 4)))
(assert (point (x 1 =(+ 1 2))))
(facts)
(exit)
