; exit ends the batch file: nothing after it runs.
(defrule r (go) => (printout t "fired" crlf))
(reset)
(assert (go))
(run)
(printout t "before exit" crlf)
(exit)
(printout t "after exit" crlf)
(facts)
