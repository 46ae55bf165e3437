"""The claims of each paper on the reproduction scoreboard, one module per paper
(:mod:`olearn.experiments.scoreboard` holds the rule table and the rendering)."""
