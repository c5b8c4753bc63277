; version: 1.2.0
; Refund limits: refunds above 1000 are flagged for the finance team, whatever the reviewer says.
(defrule refund-over-hard-limit
  (amount ?a&:(> ?a 1000))
  =>
  (assert (over-hard-limit ?a)))
