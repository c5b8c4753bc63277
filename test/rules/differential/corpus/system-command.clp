; system with no shell: CLIPS 6.30 built without one checks the arguments (symbols or strings), prints that the function is not defined and returns nothing
(system)
(printout t "[" (system "ls") "]" crlf)
(system ls " -l" 3)
(system (create$ a))
(deffunction f () (system))
(deffunction g (?x) (system "echo " ?x))
(g 4)
(exit)
