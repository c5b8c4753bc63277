; The instance file functions check their arguments' types before they try the file.
(load-instances 12)
(restore-instances 1.5)
(bload-instances (create$ a))
(save-instances 7)
(bsave-instances 7)
(save-instances "out.ins" 3)
(bsave-instances "out.ins" everything)
(exit)
