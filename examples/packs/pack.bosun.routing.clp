; version: 1.0.0
; Routing governance for the triage example: remember every severe ticket seen.
(defrule note-severe
  (severity ?s&:(>= ?s 4))
  =>
  (assert (severe-ticket ?s)))
