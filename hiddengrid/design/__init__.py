"""Design tools: the scripts that made and checked each env's design, kept out of the env
packages so that nothing under ``hiddengrid.envs`` imports an application.

``hiddengrid.design.<env>`` holds what only a designer runs: calibration tables and red teams
(``python -m hiddengrid.design.megacity.calibration``), step-0 inference checks, the codebook
maker and the scripts that draw each page's pictures (``make_docs``). They import the envs and
the applications (evaluate, record); the envs import none of them.
"""
