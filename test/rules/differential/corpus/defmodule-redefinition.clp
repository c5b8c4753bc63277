; only MAIN can be defined again, and only until it is defined with imports or exports; any other module defined again is [CSTRCPSR4], echoed through its name
(defmodule MAIN (export ?ALL))
(defmodule MAIN (export deftemplate ?ALL))
(defmodule A)
(defmodule A (export ?ALL))
(defmodule B (import MAIN ?ALL))
(defmodule MAIN (export ?NONE))
(list-defmodules)
(exit)
