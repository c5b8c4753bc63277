; depth: activations from newer facts go above older ones of the same salience, across rules.
(defrule first (step ?n) => (printout t "first " ?n crlf) (if (< ?n 3) then (assert (step (+ ?n 1)))))
(defrule second (step ?n) => (printout t "second " ?n crlf))
(defrule joiner (step ?a) (step ?b&:(> ?b ?a)) => (printout t "joiner " ?a " " ?b crlf))
(defrule late (declare (salience -1)) (step ?n) => (printout t "late " ?n crlf))
(reset)
(assert (step 1))
(run)
(exit)
