"""Change points over memrel's results history (the SQLite database of `memrel history add`).

The statistics are Apache Otava's (E-Divisive means with a t-test, the method of Fleming et al.,
"Hunter: Using Change Point Detection to Hunt for Performance Regressions"), not memrel's.
"""
