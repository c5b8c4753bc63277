-- A fencing token per claim of a tool call: the audit sequence number of the event that recorded
-- the claim (`tool_call.attempted`, or `tool_call.retried` when a retry takes over a call in
-- doubt), written in the same commit. The audit sequence only grows, so every later claim of the
-- same tool and idempotency key holds a larger token than every earlier one: a tool passes it
-- with its effect, and a system that keeps the largest token it has seen per key refuses a worker
-- that woke up late. Null on calls recorded before this migration.
ALTER TABLE state_tool_calls ADD COLUMN fence BIGINT NULL;
