(defglobal ?*known* = 5)
?*known*
?*unknown*
(clear)
?*known*
(exit)
