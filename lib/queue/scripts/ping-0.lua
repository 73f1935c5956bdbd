-- ping: the cheapest script, for health checks through the same seam and errors as the queue.
-- KEYS: none
-- ARGV: none
-- Returns: nothing
return { 'ok' }
