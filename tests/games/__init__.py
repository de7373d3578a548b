"""Games kept with the tests, each one folder (a fixture: ``LAIZI_GAMES=toy=tests.games.toy``)."""
