"""What all hiddengrid environments share: batch state, per-env random streams, the Gymnasium
single and vector env plumbing, drawing helpers, agents and evaluation."""
