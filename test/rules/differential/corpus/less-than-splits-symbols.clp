; '<' ends a symbol unless it starts one: a<b reads as a <b.
(assert (n 1<2 abc<<d e<f<g <<h 1.5<x))
(defrule r (n ?a<b $?) => (printout t "r " ?a crlf))
(facts)
(run)
(exit)
