import type { Sequelize } from 'sequelize';
import { ApiKey } from './ApiKey';
import { DiceBoxItem } from './DiceBoxItem';
import { Participant } from './Participant';
import { Roll } from './Roll';
import { RollValue } from './RollValue';
import { RollWhisper } from './RollWhisper';
import { Room } from './Room';
import { RoomBackground } from './RoomBackground';
import { ShareRequest } from './ShareRequest';
import { Theme } from './Theme';
import { ThemeAsset } from './ThemeAsset';
import { User } from './User';

export { ApiKey, DiceBoxItem, Participant, Roll, RollValue, RollWhisper, Room, RoomBackground, ShareRequest, Theme, ThemeAsset, User };

const MODEL_CLASSES = { User, ApiKey, Theme, ThemeAsset, DiceBoxItem, Room, RoomBackground, Participant, Roll, RollValue, RollWhisper, ShareRequest };

/** The model classes of one open database: the classes above, each bound to that database's Sequelize. */
export type Models = typeof MODEL_CLASSES;

// A mixin's base must be typed as constructing from `any[]` (TypeScript's rule for `class extends`).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ModelClass = (new (...args: any[]) => object) & { initModel(sequelize: Sequelize): void };

/** A subclass of `model` bound to `sequelize`, named as it is: Sequelize names a model after its class. */
function boundCopy<M extends ModelClass>(model: M, sequelize: Sequelize): M {
  const copy = { [model.name]: class extends model {} }[model.name] as M;
  copy.initModel(sequelize);
  return copy;
}

/**
 * Bind a fresh subclass of every model to `sequelize` and declare the associations (snake_case columns
 * via underscored). Subclasses, not the classes themselves: a Sequelize model belongs to one Sequelize
 * instance, and a process may have several databases open (lib/appContext.ts). Their instances are
 * still instances of the classes above, which the stores name as types.
 */
export function initModels(sequelize: Sequelize): Models {
  const entries = Object.entries(MODEL_CLASSES) as [keyof Models, ModelClass][];
  const models = Object.fromEntries(entries.map(([name, model]) => [name, boundCopy(model, sequelize)])) as unknown as Models;
  associate(models);
  return models;
}

function associate({ User, ApiKey, Theme, ThemeAsset, DiceBoxItem, Room, RoomBackground, Participant, Roll, RollValue, RollWhisper, ShareRequest }: Models) {
  ApiKey.belongsTo(User, { as: 'user', foreignKey: 'userId' });
  User.hasMany(ApiKey, { as: 'apiKeys', foreignKey: 'userId' });

  Theme.belongsTo(User, { as: 'user', foreignKey: 'userId' });
  Theme.hasMany(ThemeAsset, { as: 'assets', foreignKey: 'themeId', onDelete: 'CASCADE' });
  ThemeAsset.belongsTo(Theme, { as: 'theme', foreignKey: 'themeId' });

  DiceBoxItem.belongsTo(User, { as: 'user', foreignKey: 'userId' });
  DiceBoxItem.belongsTo(Theme, { as: 'theme', foreignKey: 'themeId' });

  Room.belongsTo(User, { as: 'user', foreignKey: 'userId' });
  Room.hasMany(Participant, { as: 'participants', foreignKey: 'roomId' });
  Room.hasOne(RoomBackground, { as: 'background', foreignKey: 'roomId' });
  RoomBackground.belongsTo(Room, { as: 'room', foreignKey: 'roomId' });
  Participant.belongsTo(Room, { as: 'room', foreignKey: 'roomId' });
  Participant.belongsTo(User, { as: 'user', foreignKey: 'userId' });

  Roll.belongsTo(User, { as: 'user', foreignKey: 'userId' });
  Roll.belongsTo(Room, { as: 'room', foreignKey: 'roomId' });
  Roll.hasMany(RollValue, { as: 'values', foreignKey: 'rollId' });
  Roll.hasMany(RollWhisper, { as: 'whispers', foreignKey: 'rollId' });
  RollValue.belongsTo(Roll, { as: 'roll', foreignKey: 'rollId' });
  RollWhisper.belongsTo(Roll, { as: 'roll', foreignKey: 'rollId' });
  RollWhisper.belongsTo(Participant, { as: 'participant', foreignKey: 'participantId' });
  RollWhisper.belongsTo(User, { as: 'user', foreignKey: 'userId' });

  ShareRequest.belongsTo(User, { as: 'user', foreignKey: 'userId' });
}
