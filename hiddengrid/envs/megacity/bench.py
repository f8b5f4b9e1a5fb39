"""Speed check: ``python -m hiddengrid.envs.megacity.bench``, the same as
``hiddengrid bench --env ...``: steps per second against Gymnasium's SyncVectorEnv, same run,
under masked random actions."""

from hiddengrid.bench import main_for

if __name__ == "__main__":
    main_for("hiddengrid/Megacity-v0")
