-- In-process jobs resume after a crash (docs/jobs.md, "Crashes"): a running in-process job whose
-- TTL passed is taken over by the next worker, which continues its durable run from the last
-- checkpoint instead of the reap failing it as abandoned. resume_count bounds the take-overs
-- (jobs.max_resumes): a job that keeps killing its workers is reaped as abandoned in the end.
ALTER TABLE state_jobs ADD COLUMN resume_count INTEGER NOT NULL DEFAULT 0 CONSTRAINT ck_state_jobs_resume_count CHECK (resume_count >= 0);
