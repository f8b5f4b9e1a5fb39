"""Design tools for the field_cipher env (see ``hiddengrid.design``)."""
