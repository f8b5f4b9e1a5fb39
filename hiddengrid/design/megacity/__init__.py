"""Design tools for the megacity env (see ``hiddengrid.design``)."""
