"""The Planner page (tab=plan): which deployment to run under a latency target. The planner's
Pareto frontiers per accelerator and mode, the best candidate, the top N with their launch
commands, and the shipped measured runs, with the targets on sliders that re-filter one search."""
