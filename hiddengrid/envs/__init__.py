"""The five hiddengrid environments, one package each."""
