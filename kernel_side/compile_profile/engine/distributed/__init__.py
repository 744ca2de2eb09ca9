"""A profile on every rank of a ``torch.distributed`` job: every rank makes the same calls of the step in the same
order, each decision a measurement makes (calls per sample, when to stop, which variant the correctness check
runs) is rank 0's, shared through a collective, and every rank stops where any rank's stage failed, so that none
waits in a collective for another.

Contract: outside a job every function here is the identity (a decision is this process's); inside one, the ranks
must reach each shared decision in the same order.

  job.py       the job a profile runs in (rank, world size, job id), decisions shared, DDP's bucket sizes
  lockstep.py  the one owner of the decisions the ranks take together between stages
"""
