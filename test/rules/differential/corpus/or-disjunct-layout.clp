; each or-disjunct keeps its own variable layout: the actions read ?x and ?y where that disjunct bound them
(defrule r (or (and (a ?x) (b ?y)) (c ?y)) => (printout t "r y=" ?y crlf))
(defrule s (or (and (a ?x) (b ?y)) (and (c ?y) (d ?x))) (e ?x ?y) => (printout t "s " ?x " " ?y crlf))
(defrule t (or (and (a ?x) (b ?y)) (and (d ?x) (c ?y))) (e ?x ?y) => (printout t "t " ?x " " ?y crlf))
(reset)
(assert (a 1) (b 2) (c 3) (d 4) (e 1 2) (e 4 3))
(agenda)
(run)
(exit)
