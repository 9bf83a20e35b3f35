"""``documents.moving_keys``: keys for documents whose place in load order changed."""

from __future__ import annotations

import random

from rdx.ruby.resolve.documents import moving_keys
from rdx.ruby.resolve.order import DOC_GAP


def apply(keys: dict[str, int], uris: list[str], placed: dict[str, int], moved: set[str]) -> dict[str, int]:
    out = {u: k for u, k in keys.items() if u not in moved}
    out.update(placed)
    return out


def test_nothing_moves_when_the_keys_already_increase():
    keys = {"a": 0, "b": DOC_GAP, "c": 2 * DOC_GAP}
    assert moving_keys(["a", "b", "c"], keys.get, set()) == ({}, set())


def test_a_document_pulled_earlier_moves_and_the_rest_keep_their_keys():
    keys = {"a": 0, "b": DOC_GAP, "c": 2 * DOC_GAP, "d": 3 * DOC_GAP}
    placed, moved = moving_keys(["a", "d", "b", "c"], keys.get, set())
    assert moved == {"d"}
    assert 0 < placed["d"] < DOC_GAP


def test_a_document_moved_before_the_first_at_key_zero_moves_that_one_too():
    keys = {"a": 0, "b": DOC_GAP, "x": 2 * DOC_GAP}
    placed, moved = moving_keys(["x", "a", "b"], keys.get, set())
    assert moved == {"x", "a"}
    assert placed["x"] < placed["a"] < DOC_GAP


def test_a_document_whose_walk_changed_comes_back_at_its_own_key():
    keys = {"a": 0, "b": DOC_GAP}
    assert moving_keys(["a", "b"], keys.get, {"b"}) == ({"b": DOC_GAP}, {"b"})


def test_a_stretch_keeps_its_bounds_and_moves_what_came_from_outside():
    keys = {"a": 10, "b": 20, "far": 1000}
    placed, moved = moving_keys(["far", "a", "b", "new"], keys.get, set(), low=5, high=30)
    assert moved == {"far"}
    assert 5 < placed["far"] < 10 and 20 < placed["new"] < 30


def test_random_orders_end_in_increasing_unique_keys():
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 30)
        old = [f"d{i}" for i in range(n)]
        keys = {u: i * DOC_GAP for i, u in enumerate(old)}
        new = old[:]
        for _ in range(rng.randint(0, 4)):
            u = new.pop(rng.randrange(len(new)))
            new.insert(rng.randrange(len(new) + 1), u)
        new += [f"n{i}" for i in range(rng.randint(0, 3))]
        rng.shuffle(new) if rng.random() < 0.1 else None
        result = moving_keys(new, keys.get, set())
        assert result is not None
        placed, moved = result
        final = apply(keys, new, placed, moved)
        assert [final[u] for u in new] == sorted(final[u] for u in new)
        assert len(set(final.values())) == len(final)
        # Only documents out of place move: all but a longest run of increasing keys.
        seq = [keys[u] for u in new if u in keys]
        longest = [1] * len(seq)
        for i in range(len(seq)):
            for j in range(i):
                if seq[j] < seq[i]:
                    longest[i] = max(longest[i], longest[j] + 1)
        assert all(u in keys for u in moved)
        assert len(moved) == len(seq) - max(longest, default=0) or (moved and "d0" in moved)
