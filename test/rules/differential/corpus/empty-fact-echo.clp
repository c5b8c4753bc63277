; an empty fact () in deffacts or a rule's assert: [PRNTUTIL2] for its first field, echoed through the () as CLIPS 6.30 does
(deffacts a ())
(deffacts b (x) ())
(defrule r => (assert ()))
(defrule r2 => (assert (x) ()))
(defrule r4 => (assert (x) ()) (printout t hi crlf))
(assert ())
(exit)
