; A query may not bind its member variables; a query action may not rebind them.
(defclass PART (is-a USER))
(any-instancep ((?p PART)) (progn (bind ?p 1) TRUE))
(do-for-all-instances ((?p PART)) TRUE (bind ?p 2))
(delayed-do-for-all-instances ((?p PART) (?q PART)) TRUE (printout t ?p crlf) (bind ?q 3))
(make-instance a of PART)
(do-for-instance ((?p PART)) TRUE (bind ?other ?p) (printout t ?other crlf))
(exit)
