"""Training the ``learned`` bot's policy (``laizi train``, docs/bots.md "learned").

* :mod:`laizi.train.data` — the decisions of ``laizi export`` Parquet files, in memory, split by
  hand into training and validation;
* :mod:`laizi.train.bc` — stage ``bc``, behaviour cloning with PyTorch (the optional ``train``
  extra), resumable, writing numpy weights and a model card.

The self-play stage (policy improvement on duplicate walls, issue 29 item 1) is not built yet.
"""
