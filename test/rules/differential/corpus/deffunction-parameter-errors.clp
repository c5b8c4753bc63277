; A deffunction's parameter list errors: after the wildcard, duplicates, no list, a constant
(deffunction bad (?a $?b ?c))
(deffunction bad (?a ?a))
(deffunction bad)
(deffunction bad (?a abc))
(deffunction bad2 ($?a $?a))
(deffunction ok (?a $?r) (printout t ?a " " ?r crlf))
(ok 1 2 3)
(exit)
