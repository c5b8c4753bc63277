(make-instance ([bad] of TEST))
(printout t (3 4) crlf)
(deffunction f () ("a" 1))
(exit)
