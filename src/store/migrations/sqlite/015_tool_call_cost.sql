-- The cost of each tool call (issue 7): the tool's `cost_estimate` when the call was made, as the
-- decimal string its ToolSpec gives (seed 000, FR-9: money is a Decimal, never a float); null
-- when the tool states none.
ALTER TABLE state_tool_calls ADD COLUMN cost_estimate TEXT NULL;
