"""Training datasets from hand records (``laizi export``; ``docs/dataset.md``).

* :mod:`laizi.dataset.sources` — records from files, directories, standard input, a database;
* :mod:`laizi.dataset.decisions` — a record replayed through the environment's encoding, one row
  per decision (observation, legal-action mask, action taken);
* :mod:`laizi.dataset.parquet` — those rows as Parquet, streamed a row group at a time, and read
  back as numpy batches;
* :mod:`laizi.dataset.events` — an mjai-style event log of a hand (``docs/events.md``);
* :mod:`laizi.dataset.export` — the command's loop;
* :mod:`laizi.dataset.recipes` — named self-play datasets (``expert-selfplay-v1``);
* :mod:`laizi.dataset.build` — a recipe built shard by shard, resumably, with a manifest
  (``laizi dataset build``, ``laizi dataset info``).

Needs numpy (``laizi[env]``) and, for Parquet, pyarrow (``laizi[dataset]``).
"""
