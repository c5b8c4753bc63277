; retract of a value that is no fact address, index or *: [ARGACCES5] naming the argument, in CLIPS 6.30 words (a symbol, or another type); an unbound variable reads as FALSE first
(retract FALSE)
(retract ?f)
(printout t ?f crlf)
(assert (a ?f))
(retract 1 FALSE)
(retract "a")
(retract 1.5)
(exit)
