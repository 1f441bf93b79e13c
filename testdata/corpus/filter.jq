.[] | select(.id % 50 == 0) | {id, n}
