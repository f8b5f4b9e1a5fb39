"""Speed check: ``python -m hiddengrid.envs.field_cipher.bench``, the same as
``hiddengrid bench --env ...``: steps per second against Gymnasium's SyncVectorEnv, same run."""

from hiddengrid.bench import main_for

if __name__ == "__main__":
    main_for("hiddengrid/FieldCipher-v0")
