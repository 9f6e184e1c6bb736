"""What more than one page builds: panels and fields, number boxes, the what-if card adder and
the charts' toolbar settings."""
