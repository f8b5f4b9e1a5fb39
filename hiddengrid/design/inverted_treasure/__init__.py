"""Design tools for the inverted_treasure env (see ``hiddengrid.design``)."""
