; insert$ at a position past the end appends, as CLIPS 6.30; only a position below 1 is [MULTIFUN1]
(printout t (insert$ (create$ 1 2) 1000 3) crlf)
(printout t (insert$ (create$ 1 2) 4 3) crlf)
(printout t (insert$ (create$ 1 2) 3 3) crlf)
(printout t (insert$ (create$ 1 2) 0 3) crlf)
(printout t (insert$ (create$ 1 2) -5 3) crlf)
(printout t (insert$ (create$) 7 a b) crlf)
(exit)
