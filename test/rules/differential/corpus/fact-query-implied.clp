; A fact-set query may name an implied deftemplate: one a rule, deffacts or assert uses.
(defrule watch-sensor (sensor ?id) =>)
(deffacts readings (reading 1))
(deffunction add-alarm () (assert (alarm)))
(printout t (any-factp ((?f sensor)) TRUE) " " (find-all-facts ((?f reading)) TRUE) crlf)
(printout t (any-factp ((?f alarm)) TRUE) crlf)
(reset)
(printout t (find-all-facts ((?f reading)) TRUE) crlf)
(exit)
