; A lone ~ where a pattern's constraint belongs
(defrule foo4 (bar ~) =>)
(deftemplate yak (slot bar))
(defrule foo5 (yak (bar ~)) =>)
(defrule foo6 (bar a ~) =>)
(defrule foo7 (bar ~ b) =>)
(exit)
