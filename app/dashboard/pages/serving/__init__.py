"""The Serving page (tab=serving): bound, estimate and measured runs of one serving scenario on
the same axes, and a fit of the estimate to the user's own runs."""
