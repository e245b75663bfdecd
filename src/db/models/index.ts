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

/** The model classes of one open database: the classes above, each bound to that database's Sequelize. */
export interface Models {
  User: typeof User;
  ApiKey: typeof ApiKey;
  Theme: typeof Theme;
  ThemeAsset: typeof ThemeAsset;
  DiceBoxItem: typeof DiceBoxItem;
  Room: typeof Room;
  RoomBackground: typeof RoomBackground;
  Participant: typeof Participant;
  Roll: typeof Roll;
  RollValue: typeof RollValue;
  RollWhisper: typeof RollWhisper;
  ShareRequest: typeof ShareRequest;
}

/**
 * Bind a fresh subclass of every model to `sequelize` and declare the associations (snake_case columns
 * via underscored). Subclasses, not the classes themselves: a Sequelize model belongs to one Sequelize
 * instance, and a process may have several databases open (lib/appContext.ts). Their instances are
 * still instances of the classes above, which the stores name as types.
 */
export function initModels(sequelize: Sequelize): Models {
  // `{ User: class extends User {} }.User`: a class named as its model, Sequelize's name for it.
  const models: Models = {
    User: { User: class extends User {} }.User,
    ApiKey: { ApiKey: class extends ApiKey {} }.ApiKey,
    Theme: { Theme: class extends Theme {} }.Theme,
    ThemeAsset: { ThemeAsset: class extends ThemeAsset {} }.ThemeAsset,
    DiceBoxItem: { DiceBoxItem: class extends DiceBoxItem {} }.DiceBoxItem,
    Room: { Room: class extends Room {} }.Room,
    RoomBackground: { RoomBackground: class extends RoomBackground {} }.RoomBackground,
    Participant: { Participant: class extends Participant {} }.Participant,
    Roll: { Roll: class extends Roll {} }.Roll,
    RollValue: { RollValue: class extends RollValue {} }.RollValue,
    RollWhisper: { RollWhisper: class extends RollWhisper {} }.RollWhisper,
    ShareRequest: { ShareRequest: class extends ShareRequest {} }.ShareRequest,
  };
  for (const model of Object.values(models) as { initModel(sequelize: Sequelize): void }[]) model.initModel(sequelize);
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
