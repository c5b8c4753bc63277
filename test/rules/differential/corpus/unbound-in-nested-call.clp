; [ANALYSIS4] for a variable read before it is bound inside a nested call names the call it is an argument of, not the whole expression
(defrule e18 (a ?y&:(or (> ?x 3) (< ?x 5))) =>)
(defrule e19 (a ?y) (test (and (> ?y 1) (eq (+ 1 ?z) 2))) =>)
(exit)
