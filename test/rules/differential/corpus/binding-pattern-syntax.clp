; a fact-address variable not followed by <- and a pattern: [PRNTUTIL2] for binding patterns, echoed to the token in the way, as CLIPS 6.30
(defrule foo ?f (fact) =>)
(defrule foo ?f <- fact)
(defrule foo2 ?f <- fact =>)
(defrule foo3 (a) ?f x (b) =>)
(exit)
