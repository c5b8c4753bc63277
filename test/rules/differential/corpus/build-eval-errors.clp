; A defrule without => ([PRNTUTIL2] and the ERROR: echo), at the top level and through build;
; eval sees no variables of its caller ([STRNGFUN2]).
(defrule blah)
(build "(defrule blah2)")
(eval "?x")
(build "(defrule ok =>)")
(rules)
(exit)
