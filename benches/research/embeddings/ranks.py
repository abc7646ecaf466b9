"""hit@1, hit@5 and MRR of a list of ranks (None: not found), as
benches/retrieval.rs computes them; shared by the research scripts."""


def metrics(ranks):
    n = max(len(ranks), 1)
    at = lambda k: sum(1 for r in ranks if r is not None and r <= k) / n
    mrr = sum(1.0 / r for r in ranks if r is not None) / n
    return dict(n=len(ranks), h1=100 * at(1), h5=100 * at(5), mrr=mrr)
