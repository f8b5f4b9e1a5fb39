"""Design tools for the squad_recon env (see ``hiddengrid.design``)."""
