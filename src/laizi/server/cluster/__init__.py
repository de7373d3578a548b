"""Many processes, one platform (issue 16): ``laizi serve --db postgresql://… --redis redis://…``.

- :mod:`.node`: a process's presence, the leases of its rooms, takeovers, hand-overs;
- :mod:`.fence`: the owner epoch checked at every write of a room (PostgreSQL);
- :mod:`.relay`: one public address — a client's connection forwarded to its room's owner;
- :mod:`.shared`: the login windows, the per-address and per-account limits and the lobby in Redis;
- :mod:`.scripts`: the Redis keys and the Lua scripts.

docs/server.md ("Running a cluster") describes the whole.  Without ``--redis`` none of this is
imported: one process with SQLite, as before.
"""
