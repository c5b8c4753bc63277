; a dynamic salience is evaluated when the rule is defined: a global not defined yet is [GLOBLDEF1] then [PRNTUTIL8], echoed through the salience expression, and the rule is not defined
(defrule early (declare (salience ?*later*)) =>)
(defrule early-call (declare (salience (abs ?*later*))) =>)
(defglobal ?*later* = 5)
(defrule defined (declare (salience ?*later*)) =>)
(defrule
  multi-line
  (declare (salience
     (abs ?*missing*)))
  =>)
(rules)
(agenda)
(exit)
