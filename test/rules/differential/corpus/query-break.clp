; A break in a query's action ends that query; the loop around it goes on.
(defclass PART (is-a USER))
(make-instance a of PART)
(make-instance b of PART)
(deffunction visit-parts ()
   (bind ?n 0)
   (while (< ?n 2) do
      (bind ?n (+ ?n 1))
      (do-for-all-instances ((?p PART)) TRUE (printout t ?n " " ?p crlf) (break))
      (delayed-do-for-all-instances ((?p PART)) TRUE (printout t ?n " delayed " ?p crlf) (break)))
   ?n)
(printout t (visit-parts) crlf)
(exit)
